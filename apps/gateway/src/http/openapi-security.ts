/** Security scheme names in the OpenAPI document: bearer everywhere, Blazar's X-Auth-Token on its own routes. */
export const BEARER_AUTH = 'bearer';
export const BLAZAR_TOKEN_AUTH = 'blazar-token';

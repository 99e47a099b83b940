/**
 * A path parameter followed by an AIP-136 custom method, as in `…/{experiment}:commit`.
 * Fastify's router (find-my-way) ends a parameter only at `/` or at the end of its regex, so
 * the id gets a regex that stops at the colon; the route then spells the colon `::`.
 */
export const paramBeforeVerb = (name: string) => `:${name}(^[^:/]+)`;

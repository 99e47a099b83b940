/**
 * Binds a gateway DTO to its wire contract (`class XDto implements Writable<X>`) when one DTO is
 * both the body a client writes and the resource it reads back: output-only fields are absent on
 * input, so every field is optional, but each field keeps the contract's name and type, so a DTO
 * that drifts from libs/contracts no longer compiles.
 */
export type Writable<T> = T extends readonly (infer E)[]
  ? Writable<E>[]
  : T extends object
    ? { [K in keyof T]?: Writable<T[K]> }
    : T;

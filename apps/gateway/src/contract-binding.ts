/** Output-only fields are absent on input, so all are optional, but names and types stay the contract's. */
export type Writable<T> = T extends readonly (infer E)[]
  ? Writable<E>[]
  : T extends object
    ? { [K in keyof T]?: Writable<T[K]> }
    : T;

/** A package directory without its package.ts. */
export interface Gadget {
  name: string;
}

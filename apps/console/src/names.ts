/** A resource's id: the last segment of its name (`projects/p/locations/l/firewallPolicies/f` → `f`). */
export const idOf = (name: string) => name.split('/').pop() ?? name;

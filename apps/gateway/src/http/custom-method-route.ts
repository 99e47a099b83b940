/** find-my-way ends a parameter only at `/` or its regex's end, so the id stops at the colon; routes spell it `::`. */
export const paramBeforeVerb = (name: string) => `:${name}(^[^:/]+)`;

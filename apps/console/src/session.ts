/**
 * The bearer token lives in sessionStorage only: it is gone when the tab closes, is never put in
 * a URL or a log, and is not shared with other tabs.
 */
const TOKEN_KEY = 'policy-rollout.token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: () => sessionStorage.removeItem(TOKEN_KEY),
};

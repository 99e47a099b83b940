import { useState } from 'preact/hooks';
import { ApiClient, type Principal } from '../api/client';
import { ApiError, messageOf } from '../api/errors';
import { ErrorMessage } from '../components/status';

interface SignInProps {
  error?: string;
  onSignedIn: (token: string, principal: Principal) => void;
}

function signInMessage(error: unknown): string {
  if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') {
    return 'The gateway does not accept this token (401): check that you pasted all of it, and that it has not been revoked.';
  }
  if (error instanceof ApiError && error.code === 'PERMISSION_DENIED') {
    return 'This token is valid but has no role the console can use (403): it needs at least the viewer role.';
  }
  return messageOf(error);
}

/** Sign in with a bearer token (an API key, a JWT, or the development token `npm start` prints). */
export function SignInPage({ error, onSignedIn }: SignInProps) {
  const [token, setToken] = useState('');
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = token.trim();
    if (!trimmed) return setFailure('Paste a token first.');
    setBusy(true);
    setFailure(undefined);
    try {
      onSignedIn(trimmed, await new ApiClient(trimmed).principal());
    } catch (caught) {
      setFailure(signInMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="sign-in">
      <h1>Sign in</h1>
      <p>
        Paste a bearer token: an API key, a JWT, or the development token that{' '}
        <code>npm start</code> prints. It is kept in this tab only and forgotten when the tab
        closes.
      </p>
      <form onSubmit={submit}>
        <label for="token">Bearer token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-invalid={failure ? 'true' : undefined}
          aria-describedby="sign-in-error"
        />
        <div id="sign-in-error">
          <ErrorMessage message={failure ?? error} />
        </div>
        <button type="submit" aria-busy={busy} disabled={busy}>
          Sign in
        </button>
      </form>
    </article>
  );
}

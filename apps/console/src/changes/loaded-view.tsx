import type { ComponentChildren } from 'preact';
import { ErrorMessage } from '../components/status';
import type { Loaded } from './use-available';

/** A read's value through `children`, or what stands in for it: loading, not available, the error. */
export function LoadedView<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  /** Names the missing thing: "The rule diff". */
  what: string;
  children: (value: T) => ComponentChildren;
}) {
  switch (loaded.state) {
    case 'loading':
      return <p aria-busy="true">Loading…</p>;
    case 'unavailable':
      return (
        <p class="unavailable" role="note">
          {what} is not available: this gateway does not offer it yet.
        </p>
      );
    case 'error':
      return <ErrorMessage message={loaded.message} />;
    case 'ready':
      return <>{children(loaded.value)}</>;
  }
}

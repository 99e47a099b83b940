import type { ComponentChildren } from 'preact';
import { ErrorMessage } from '../components/status';
import type { Loaded } from './use-loaded';

export function LoadedView<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (value: T) => ComponentChildren;
}) {
  switch (loaded.state) {
    case 'loading':
      return <p aria-busy="true">Loading…</p>;
    case 'error':
      return <ErrorMessage message={loaded.message} />;
    case 'ready':
      return <>{children(loaded.value)}</>;
  }
}

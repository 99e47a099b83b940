import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';

export type Loaded<T> =
  { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; message: string };

/** A stale answer (deps changed meanwhile) is dropped. */
export function useLoaded<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    load().then(
      (value) => live && setLoaded({ state: 'ready', value }),
      (caught: unknown) => live && setLoaded({ state: 'error', message: messageOf(caught) }),
    );
    return () => void (live = false);
    // The caller names what the read depends on.
  }, deps);
  return loaded;
}

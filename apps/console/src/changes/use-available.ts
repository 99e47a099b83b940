import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';
import { orUnavailable } from '../api/change-api';

/** A read of an endpoint the gateway may lack: loading, its value, unavailable (404), or an error. */
export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'unavailable' }
  | { state: 'error'; message: string };

/** Reads once per change of `deps`; a stale answer (deps changed meanwhile) is dropped. */
export function useAvailable<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    orUnavailable(load()).then(
      (answer) =>
        live &&
        setLoaded(
          answer.available ? { state: 'ready', value: answer.value } : { state: 'unavailable' },
        ),
      (caught: unknown) => live && setLoaded({ state: 'error', message: messageOf(caught) }),
    );
    return () => void (live = false);
    // The caller names what the read depends on.
  }, deps);
  return loaded;
}

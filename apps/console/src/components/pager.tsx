import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** The tokens of the pages before are kept, so the operator can page back without a server cursor. */
export function usePageTokens() {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  return {
    /** Undefined: the first. */
    current: tokens[tokens.length - 1],
    /** 1-based. */
    number: tokens.length,
    back: () => setTokens(tokens.slice(0, -1)),
    forward: (next: string) => setTokens([...tokens, next]),
    restart: () => setTokens([undefined]),
  };
}

export function Pager({
  label,
  pages,
  next,
  children,
}: {
  label: string;
  pages: ReturnType<typeof usePageTokens>;
  next: string | undefined;
  children?: ComponentChildren;
}) {
  return (
    <nav aria-label={label} class="pager">
      <button type="button" class="secondary" disabled={pages.number === 1} onClick={pages.back}>
        Previous page
      </button>
      <span>
        Page {pages.number}
        {children}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={!next}
        onClick={() => next && pages.forward(next)}
      >
        Next page
      </button>
    </nav>
  );
}

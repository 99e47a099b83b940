import type { ComponentChildren } from 'preact';

/** An error of the API, as the sentence ApiError carries; announced to screen readers. */
export function ErrorMessage({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p role="alert" class="error">
      {message}
    </p>
  );
}

/** A success or progress note, announced politely. */
export function Notice({ children }: { children?: ComponentChildren }) {
  return (
    <p role="status" class="notice">
      {children}
    </p>
  );
}

export const formatCount = (value: number | undefined) => (value ?? 0).toLocaleString('en-US');

export function formatTime(value?: string): string {
  if (!value) return '–';
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? value
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$|Z$/, ' UTC');
}

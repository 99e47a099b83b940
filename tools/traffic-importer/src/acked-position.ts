export interface Position {
  offset: number;
  lines: number;
}

interface Step extends Position {
  done: boolean;
}

/**
 * Acks arrive out of order (many publishes in flight), so a line counts as done only once every
 * line before it is; a failed publish is never done, and the position stays before it.
 */
export class AckedPosition {
  private steps: Step[] = [];
  private first = 0;
  private current: Position;

  constructor(start: Position = { offset: 0, lines: 0 }) {
    this.current = { ...start };
  }

  get position(): Position {
    return { ...this.current };
  }

  passed(position: Position): void {
    if (this.first === this.steps.length) this.current = { ...position };
    else this.steps.push({ ...position, done: true });
  }

  /** Call what it returns once the server has acknowledged. */
  sent(position: Position): () => void {
    const step = { ...position, done: false };
    this.steps.push(step);
    return () => {
      step.done = true;
      this.advance();
    };
  }

  private advance(): void {
    while (this.first < this.steps.length && this.steps[this.first].done) {
      const { offset, lines } = this.steps[this.first++];
      this.current = { offset, lines };
    }
    // Forget the steps behind once they are many, so a long import does not keep them all.
    if (this.first === this.steps.length) {
      this.steps = [];
      this.first = 0;
    } else if (this.first > 4096) {
      this.steps = this.steps.slice(this.first);
      this.first = 0;
    }
  }
}

/** `wakeAll` resolves every pending sleep, so shutdown never waits out a back-off. */
export class Sleeper {
  private readonly waking = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waking.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waking.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.waking]) wake();
    this.waking.clear();
  }
}

/**
 * Process signals that end the emulator cleanly: SIGINT (Ctrl-C in headless mode; in the TUI the
 * terminal is in raw mode and Ctrl-C arrives as a key), SIGTERM (service managers, `kill`) and
 * SIGHUP (the terminal went away). The first one calls the handler once; later ones are reported
 * through `again` and otherwise ignored while the shutdown runs (the handler decides the exit).
 */

/** Signals that shut the emulator down. */
export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Installs the handlers.
 * @param onSignal called once, with the first signal received
 * @param again called for every later signal (optional)
 * @returns a function that removes the handlers
 */
export function onShutdownSignals(onSignal: (signal: NodeJS.Signals) => void, again?: (signal: NodeJS.Signals) => void): () => void {
  let fired = false;
  const handlers = SHUTDOWN_SIGNALS.map((sig) => {
    const h = () => {
      if (fired) {
        again?.(sig);
        return;
      }
      fired = true;
      onSignal(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

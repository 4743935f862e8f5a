/**
 * The time and the timers that deadlines are measured with, as a parameter: the real ones by default, and in tests
 * a clock moved by hand (tests/helpers/manual_clock.ts), so that a 60 s lease is checked in milliseconds.
 */
export interface Clock {
  /** Milliseconds, as Date.now() counts them (only differences matter). */
  now(): number;
  /** Calls `callback` once `ms` have passed on this clock; returns a handle for clearTimeout. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer set with this clock's setTimeout (a handle of another clock, or undefined, is ignored). */
  clearTimeout(handle: unknown): void;
}

/** The real clock: Date.now and the runtime's timers. */
export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

// V8's defaults suit a process that lives long. A command runs once and exits, and two of them cost it
// memory it never uses again (measured on a plan of 10,000 resources: peak RSS 185 MB with the defaults,
// 138 MB with both of these, and no more CPU; bench/plan.mjs).
import { setFlagsFromString } from 'node:v8';

/** Sets V8 up for one command's run. Not for `accord serve`, which lives long. */
export function tuneForOneRun(): void {
  // undici parses HTTP with llhttp compiled to WebAssembly. On the first responses V8 recompiles its
  // parse function, one large state machine, with TurboFan, and that compile alone holds some 35 MB
  // (which the allocator keeps for the rest of the run) and 70 ms of CPU, for a parser that reads a few
  // MB in a run. Liftoff, V8's first tier, already compiled it.
  setFlagsFromString('--liftoff-only');
  // The young generation starts small and doubles (to 32 MB) while most of what it holds survives, as
  // all that a plan reads does; at that size it holds more garbage for longer, and the old generation
  // grows with it. Kept at its first size, it is collected more often, each time quickly.
  setFlagsFromString('--semi-space-growth-factor=1');
}

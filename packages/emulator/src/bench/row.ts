import type {Stats} from './stats.js';

/** One figure of `npm run bench` (a row of the printed table and of bench/results.json). */
export interface Row {
  figure: string;
  case: string;
  unit: string;
  stats: Stats;
  /** The goal, in words (issue 21's where it sets one). */
  goal?: string;
  /** Whether the goal is met by this run; absent where the goal is not a measured bound. */
  met?: boolean;
  /** The same figure of another implementation, measured in the same runs. */
  peer?: {name: string; stats: Stats};
  extra?: Record<string, number | string>;
}

export * from './math.js';
export { round } from './round.js';

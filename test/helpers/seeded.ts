/** A small seeded random source (mulberry32, the one the A/B readout uses), so a test draws the same numbers every run. */
export { seededRandom as seeded } from '../../src/core/ab-test.js';

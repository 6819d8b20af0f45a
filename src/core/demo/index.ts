export { generateDemoWorkspace, DEMO_BASE_TIME, HOSTILE_SESSION_ID, TOUR_SESSION_ID, type DemoOptions, type DemoSummary } from './generate';
export { createRng, seededUlidFactory, type Rng } from './random';

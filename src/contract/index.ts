export * from './enums.js';
export * from './envelopes.js';
export * from './error-codes.js';
export * from './primitives.js';
export * from './reference-model.js';
export * from './requests.js';
export * from './resources.js';
export * from './routes.js';

// Exposes the typed window.api (see src/shared/contract). Placeholder.
export {};

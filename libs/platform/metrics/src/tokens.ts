/** The process's Prometheus registry; other modules register their metrics in it. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

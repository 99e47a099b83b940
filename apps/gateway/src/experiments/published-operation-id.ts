/** Operation ids published when these routes were in ExperimentsController: generated clients name their methods by them. */
export const publishedOperationId = (method: string) => `ExperimentsController_${method}`;

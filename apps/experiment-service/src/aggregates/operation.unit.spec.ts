import { newOperation, operationJson } from './operation';

/** The JSON an answer write binds, parsed back. */
const kept = (write: ReturnType<typeof operationJson>) => {
  const values: unknown[] = [];
  write((value) => (values.push(value), `$${values.length}`));
  return values.map((value) => JSON.parse(value as string));
};

describe('an Operation kept as its command answer', () => {
  const view = { name: 'projects/p/x', etag: 'E1', firewallPolicy: { rules: [{ priority: 1 }] } };
  const analysis = { complete: true, differingRegions: [] };

  it('keeps exactly the Operation the client got, with the resource and analysis bound once', () => {
    const operation = newOperation('update', view.name, { ...view, analysis }, new Date(0));

    const [json] = kept(operationJson(operation, JSON.stringify(view), JSON.stringify(analysis)));

    expect(json).toEqual(operation);
  });

  it('keeps an Operation without a resource (a delete) as it is', () => {
    const operation = newOperation('delete', view.name, {}, new Date(0));

    expect(kept(operationJson(operation, undefined))).toEqual([operation]);
  });
});

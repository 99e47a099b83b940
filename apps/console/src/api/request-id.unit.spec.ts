import { newRequestId } from './request-id';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the request id of each call', () => {
  it('is a fresh version 4 UUID, also where crypto.randomUUID is missing (plain HTTP)', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newRequestId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    const allOnes = {
      getRandomValues: <T extends ArrayBufferView | null>(array: T): T => {
        new Uint8Array((array as ArrayBufferView).buffer).fill(0xff);
        return array;
      },
    };
    const fromBytes = newRequestId(allOnes);
    expect(fromBytes).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
  });
});

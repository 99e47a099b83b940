import { MAX_TRAFFIC_CLIENTS, TrafficClients } from './traffic-clients';

describe('TrafficClients: bounded labels of the publisher', () => {
  it('names the client by its User-Agent product and the contract by its declared traffic package', () => {
    const clients = new TrafficClients();
    expect(clients.labels('Acme-Exporter/2.3.1 (linux)', 'traffic.v2alpha/2.0.0-alpha.1')).toEqual({
      client: 'acme-exporter',
      contract: 'traffic.v2alpha',
    });
    expect(clients.labels('flowd', 'traffic.v1/1.0.0')).toEqual({
      client: 'flowd',
      contract: 'traffic.v1',
    });
  });

  it('counts absent, malformed and unserved values as unknown, and client names past the bound as other', () => {
    const clients = new TrafficClients();
    expect(clients.labels(undefined, undefined)).toEqual({
      client: 'unknown',
      contract: 'unknown',
    });
    expect(clients.labels('  /1.0 ', 'traffic.v1')).toEqual({
      client: 'unknown',
      contract: 'unknown',
    });
    expect(clients.labels('💥', 'traffic.v9/9.0.0').contract).toBe('unknown');
    expect(clients.labels('💥', undefined).client).toBe('unknown');
    for (let i = 0; i < MAX_TRAFFIC_CLIENTS; i++)
      expect(clients.labels(`client-${i}/1`, undefined).client).toBe(`client-${i}`);
    expect(clients.labels('one-more/1', undefined).client).toBe('other');
    expect(clients.labels('client-7/2', undefined).client).toBe('client-7');
  });
});

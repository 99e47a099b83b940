/** Plain JSON for a NATS payload: the DTO instance minus undefined fields. */
export const plain = (dto: object): object => JSON.parse(JSON.stringify(dto));

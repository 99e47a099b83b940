/**
 * The servers of floors.bench.ts, each doing nothing but answer, so the platform's own cost per
 * request shows: `node floor-server.ts <kind>` listens on PORT and says `ready` on its IPC channel.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createServer } from 'node:http';
import { NatsConnection, connect } from 'nats';

const SUBJECT = `floor.echo.${process.env.FLOOR_RUN ?? 'local'}`;
const EMPTY = new Uint8Array(0);
let nats: NatsConnection | undefined;

@Controller()
class FloorController {
  @Get('floor')
  answer(): Promise<{ ok: boolean }> | { ok: boolean } {
    if (!nats) return { ok: true };
    return nats.request(SUBJECT, EMPTY, { timeout: 5_000 }).then(() => ({ ok: true }));
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(kind: string): Promise<void> {
  const port = Number(process.env.PORT);
  const natsUrl = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
  if (kind === 'responder') {
    const connection = await connect({ servers: natsUrl, noAsyncTraces: true });
    connection.subscribe(SUBJECT, { callback: (_error, message) => message.respond(EMPTY) });
    await connection.flush();
  } else if (kind === 'node') {
    await new Promise<void>((resolve) =>
      createServer((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      }).listen(port, '127.0.0.1', resolve),
    );
  } else {
    if (kind.endsWith('-nats')) nats = await connect({ servers: natsUrl, noAsyncTraces: true });
    const app = kind.startsWith('fastify')
      ? await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(FloorModule, { logger: false });
    await app.listen(port, '127.0.0.1');
  }
  process.send?.('ready');
  // bench/support.ts's `stop` ends a child by closing its IPC channel.
  process.once('disconnect', () => process.exit(0));
}

void main(process.argv[2] ?? 'node');

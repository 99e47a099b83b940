import { Module } from '@nestjs/common';
import { PreviewLogPublisher } from './preview-log.publisher';

/** Publishes the per-event preview logs the traffic consumer produces. */
@Module({
  providers: [PreviewLogPublisher],
  exports: [PreviewLogPublisher],
})
export class PreviewLogsModule {}

import { Module } from '@nestjs/common';
import { PreviewLogPublisher } from './preview-log.publisher';

@Module({
  providers: [PreviewLogPublisher],
  exports: [PreviewLogPublisher],
})
export class PreviewLogsModule {}

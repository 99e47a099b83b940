import { definePackage } from '@rollout/contracts';

export const WIDGET_V1_PACKAGE = definePackage({
  name: 'widget.v1',
  version: '1.1.0',
  stability: 'stable',
  requests: ['CreateWidgetRequest'],
  replies: ['Widget'],
  events: [],
  resources: [],
  deprecations: [
    {
      target: 'Widget.size',
      since: '1.1.0',
      replacement: 'Widget.sizeMm',
      disallowedByDefault: true,
    },
  ],
});

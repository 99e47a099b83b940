/** widget.v1 with a deliberately breaking change: `color` is gone (and the version bumped). */
export type Color = 'RED' | 'GREEN';

export interface Widget {
  name: string;
  size?: number;
}

export interface CreateWidgetRequest {
  widget: Widget;
}

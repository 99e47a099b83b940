/** widget.v1 as released: the fixture the checker's end-to-end test starts from. */
export type Color = 'RED' | 'GREEN';

export interface Widget {
  name: string;
  /** Comments are not part of the contract. */
  color: Color;
  size?: number;
}

export interface CreateWidgetRequest {
  widget: Widget;
}

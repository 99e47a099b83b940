/** widget.v1 changed compatibly: an optional field and an enum value added, a field deprecated, comments reworded. */
export type Color = 'RED' | 'GREEN' | 'BLUE';

export interface Widget {
  name: string;
  /** The widget's colour (reworded comment: not part of the contract). */
  color: Color;
  /** @deprecated since 1.1.0: use sizeMm. */
  size?: number;
  /** Added in 1.1.0. */
  sizeMm?: number;
}

export interface CreateWidgetRequest {
  widget: Widget;
}

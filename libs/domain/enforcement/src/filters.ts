import {
  EnforcementContext,
  EnforcementFilter,
  FilterResult,
  LeaseRequest,
  Reservation,
} from './model';

abstract class CheckOnlyFilter implements EnforcementFilter {
  abstract readonly name: string;
  abstract checkCreate(
    context: EnforcementContext,
    lease: LeaseRequest,
    liveLeases: number,
  ): Promise<FilterResult>;
  abstract checkUpdate(
    context: EnforcementContext,
    current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult>;
  async onEnd(): Promise<void> {
    // Nothing to refund: these filters keep no budget.
  }
}

export class MaxLeaseDurationFilter extends CheckOnlyFilter {
  readonly name = 'MaxLeaseDuration';

  constructor(private readonly maxSeconds: number) {
    super();
  }

  async checkCreate(_context: EnforcementContext, lease: LeaseRequest): Promise<FilterResult> {
    return this.check(lease);
  }

  async checkUpdate(
    _context: EnforcementContext,
    _current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult> {
    return this.check(lease);
  }

  private check(lease: LeaseRequest): FilterResult {
    if (this.maxSeconds === 0) return;
    // Compared exactly, reported rounded up so the message never reads "3600 must be less than or equal to 3600".
    const milliseconds = lease.endDate.getTime() - lease.startDate.getTime();
    if (milliseconds > this.maxSeconds * 1000) {
      const seconds = Math.ceil(milliseconds / 1000);
      return {
        message: `Lease duration of ${seconds} seconds must be less than or equal to the maximum lease duration of ${this.maxSeconds} seconds.`,
      };
    }
  }
}

/** The count excludes the lease being created, so the ledger serializes creates per project for the limit to hold. */
export class MaxActiveLeasesFilter extends CheckOnlyFilter {
  readonly name = 'MaxActiveLeases';

  constructor(
    private readonly limit: number,
    private readonly projectOverrides: Readonly<Record<string, number>>,
  ) {
    super();
  }

  async checkCreate(
    context: EnforcementContext,
    _lease: LeaseRequest,
    active: number,
  ): Promise<FilterResult> {
    const limit = this.projectOverrides[context.projectId] ?? this.limit;
    if (active >= limit) {
      return {
        message: `Project ${context.projectId} already has ${active} pending or active leases; the maximum is ${limit}.`,
      };
    }
  }

  async checkUpdate(): Promise<FilterResult> {
    return;
  }
}

/** How big a reservation is, by resource type (Blazar's plugins size them differently). */
export function reservationSize(reservation: Reservation): number | undefined {
  switch (reservation.resourceType) {
    case 'physical:host':
      // Blazar reserves up to `max` hosts; a request with only `min` asks for exactly that many.
      return reservation.max ?? reservation.min;
    case 'virtual:instance':
    case 'virtual:floatingip':
      return reservation.amount;
    default:
      return undefined;
  }
}

export type SizeLimits = Readonly<Record<string, number>>;

export class MaxReservationSizeFilter extends CheckOnlyFilter {
  readonly name = 'MaxReservationSize';

  constructor(
    private readonly limits: SizeLimits,
    private readonly projectOverrides: Readonly<Record<string, SizeLimits>>,
  ) {
    super();
  }

  async checkCreate(context: EnforcementContext, lease: LeaseRequest): Promise<FilterResult> {
    return this.check(context, lease);
  }

  async checkUpdate(
    context: EnforcementContext,
    _current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult> {
    return this.check(context, lease);
  }

  private check(context: EnforcementContext, lease: LeaseRequest): FilterResult {
    const overrides = this.projectOverrides[context.projectId] ?? {};
    for (const reservation of lease.reservations) {
      const limit = overrides[reservation.resourceType] ?? this.limits[reservation.resourceType];
      const size = reservationSize(reservation);
      if (limit === undefined || size === undefined) continue;
      if (size > limit) {
        return {
          message: `Reservation of ${size} ${reservation.resourceType} exceeds the maximum reservation size of ${limit}.`,
        };
      }
    }
  }
}

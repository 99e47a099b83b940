export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease?: string;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/;

export function parseSemVer(text: string): SemVer | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4],
  };
}

/** Negative when a < b. A prerelease sorts before its release; prereleases compare as text. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] - b[key];
  }
  if (a.prerelease === b.prerelease) return 0;
  if (a.prerelease === undefined) return 1;
  if (b.prerelease === undefined) return -1;
  return a.prerelease < b.prerelease ? -1 : 1;
}

export function isMinorBump(previous: SemVer, next: SemVer): boolean {
  return (
    next.major > previous.major || (next.major === previous.major && next.minor > previous.minor)
  );
}

/** `experiment.v1` → { family: 'experiment', major: 1, alpha: false }; `traffic.v2alpha1` → alpha. */
export function parsePackageName(
  name: string,
): { family: string; major: number; alpha: boolean } | undefined {
  const match = /^([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)\.v(\d+)((?:alpha|beta)\d*)?$/.exec(name);
  if (!match) return undefined;
  return { family: match[1], major: Number(match[2]), alpha: match[3] !== undefined };
}

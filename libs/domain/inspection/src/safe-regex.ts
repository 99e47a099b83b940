import { RuleError } from './errors';
import { pythonStr } from './values';

export const MAX_PATTERN_LENGTH = 512;
export const MAX_SUBJECT_LENGTH = 16_384;
/** Backtracking paths one test may explore: around ten milliseconds of matching at worst. */
export const REGEX_PATH_BUDGET = 10_000_000;
export const MIN_REGEX_SUBJECT = 32;

export interface SafeRegex {
  regex: RegExp;
  maxSubject: number;
}

interface Piece {
  paths: (n: number) => number;
  choice: boolean;
}

const ONE: Piece = { paths: () => 1, choice: false };

/**
 * Python regex (as Ironic) to JavaScript, with a bounded cost in a backtracking engine:
 * backreferences and repeated groups holding a repetition or alternation (`(a+)+`) are
 * refused. What is left has paths polynomial in the subject length, which bounds the longest
 * subject a pattern may be tried on.
 */
class PatternReader {
  private i = 0;
  out = '';

  constructor(private readonly src: string) {}

  read(): Piece {
    const piece = this.alternation();
    if (this.i < this.src.length) throw new RuleError('invalid regex: unbalanced parenthesis');
    return piece;
  }

  private alternation(): Piece {
    const branches = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.out += '|';
      this.i++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0];
    return { paths: (n) => branches.reduce((sum, b) => sum + b.paths(n), 0), choice: true };
  }

  private sequence(): Piece {
    const items: Piece[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const item = this.quantified(this.atom());
      if (item !== ONE) items.push(item);
    }
    if (items.length === 0) return ONE;
    if (items.length === 1) return items[0];
    return {
      paths: (n) => items.reduce((product, p) => product * p.paths(n), 1),
      choice: items.some((p) => p.choice),
    };
  }

  private atom(): Piece {
    const c = this.src[this.i];
    if (c === '(') return this.group();
    if (c === '[') {
      this.characterClass();
      return ONE;
    }
    if (c === '\\') {
      this.escape();
      return ONE;
    }
    if ('*+?'.includes(c) || (c === '{' && this.quantifierAt(this.i)))
      throw new RuleError('invalid regex: nothing to repeat');
    this.out += c;
    this.i++;
    return ONE;
  }

  private group(): Piece {
    this.i++;
    let prefix = '';
    if (this.src[this.i] === '?') {
      const rest = this.src.slice(this.i);
      const named = /^\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      const plain = /^\?(?::|=|!|<=|<!)/.exec(rest);
      if (rest.startsWith('?P=')) throw new RuleError('regex backreferences are not allowed');
      if (rest.startsWith('?#')) {
        const end = this.src.indexOf(')', this.i);
        if (end < 0) throw new RuleError('invalid regex: unbalanced parenthesis');
        this.i = end + 1;
        return ONE;
      }
      const match = named ?? plain;
      if (!match)
        throw new RuleError(
          'invalid regex: unsupported group (inline flags only at the very start)',
        );
      prefix = named ? `?<${named[1]}>` : match[0];
      this.i += match[0].length;
    }
    this.out += `(${prefix}`;
    const inner = this.alternation();
    if (this.src[this.i] !== ')') throw new RuleError('invalid regex: unbalanced parenthesis');
    this.out += ')';
    this.i++;
    return inner;
  }

  private characterClass(): void {
    let j = this.i + 1;
    let text = '[';
    if (this.src[j] === '^') text += this.src[j++];
    // Python reads a `]` right after `[` or `[^` as a literal.
    if (this.src[j] === ']') {
      text += '\\]';
      j++;
    }
    for (; j < this.src.length && this.src[j] !== ']'; j++) {
      if (this.src[j] === '\\') text += this.src[j++];
      text += this.src[j] ?? '';
    }
    if (j >= this.src.length) throw new RuleError('invalid regex: unterminated character set');
    this.out += `${text}]`;
    this.i = j + 1;
  }

  private escape(): void {
    const next = this.src[this.i + 1];
    if (next === undefined) throw new RuleError('invalid regex: trailing backslash');
    if (/[1-9]/.test(next) || next === 'k')
      throw new RuleError('regex backreferences are not allowed');
    // Python's start and end of the subject, whatever the flags.
    if (next === 'A') this.out += '(?<![\\s\\S])';
    else if (next === 'Z' || next === 'z') this.out += '(?![\\s\\S])';
    else this.out += `\\${next}`;
    this.i += 2;
  }

  private quantifierAt(i: number): RegExpExecArray | null {
    return /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(i, i + 24));
  }

  private quantified(piece: Piece): Piece {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    let text: string;
    const braces = c === '{' ? this.quantifierAt(this.i) : null;
    if (c === '*' || c === '+' || c === '?') {
      [min, max, text] = [c === '+' ? 1 : 0, c === '?' ? 1 : Infinity, c];
    } else if (braces) {
      min = Number(braces[1]);
      max = braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]);
      text = braces[0];
    } else {
      return piece;
    }
    this.i += text.length;
    if (this.src[this.i] === '?') {
      text += '?';
      this.i++;
    }
    const after = this.src[this.i];
    if (
      after !== undefined &&
      '*+?{'.includes(after) &&
      (after !== '{' || this.quantifierAt(this.i))
    ) {
      throw new RuleError('invalid regex: multiple repeat');
    }
    this.out += text;
    if (!piece.choice) {
      return min === max
        ? ONE
        : { paths: (n) => Math.max(1, Math.min(max, n) - min + 1), choice: true };
    }
    if (max === 1) return { paths: (n) => 1 + piece.paths(n), choice: true };
    if (min === max) return { paths: (n) => piece.paths(n) ** min, choice: true };
    throw new RuleError(
      'regex has a repeated group containing a repetition or alternation (catastrophic backtracking)',
    );
  }
}

const caches = { search: new Map<string, SafeRegex>(), full: new Map<string, SafeRegex>() };

/** Throws a RuleError saying why a pattern is refused. */
export function compileSafeRegex(pattern: string, fullMatch: boolean): SafeRegex {
  const cache = fullMatch ? caches.full : caches.search;
  const cached = cache.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new RuleError(`regex longer than ${MAX_PATTERN_LENGTH} characters`);
  let body = pattern;
  let flags = '';
  const inline = /^\(\?([aiLmsux]+)\)/.exec(body);
  if (inline) {
    if (inline[1].includes('x')) throw new RuleError('verbose regexes ((?x)) are not supported');
    flags = [...new Set(inline[1].replace(/[aLu]/g, ''))].join('');
    body = body.slice(inline[0].length);
  }
  const reader = new PatternReader(body);
  const piece = reader.read();
  // A full match starts only at the beginning (sticky).
  const paths = (n: number) => (fullMatch ? 1 : n + 1) * piece.paths(n);
  if (paths(MIN_REGEX_SUBJECT) > REGEX_PATH_BUDGET) {
    throw new RuleError(
      'regex can backtrack too much (too many repetitions or alternatives one after another)',
    );
  }
  let [low, high] = [MIN_REGEX_SUBJECT, MAX_SUBJECT_LENGTH];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (paths(mid) <= REGEX_PATH_BUDGET) low = mid;
    else high = mid - 1;
  }
  let regex: RegExp;
  try {
    regex = fullMatch
      ? new RegExp(`(?:${reader.out})(?![\\s\\S])`, `${flags}y`)
      : new RegExp(reader.out, flags);
  } catch {
    throw new RuleError(`invalid regex ${JSON.stringify(pattern)}`);
  }
  const compiled = { regex, maxSubject: low };
  if (cache.size > 10_000) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

export function regexTest(value: unknown, pattern: unknown, fullMatch: boolean): boolean {
  if (typeof pattern !== 'string') throw new RuleError('regex must be a string');
  // Ironic matches str(value): null is "None".
  const subject = pythonStr(value);
  const { regex, maxSubject } = compileSafeRegex(pattern, fullMatch);
  if (subject.length > maxSubject) {
    throw new RuleError(
      `a value of ${subject.length} characters is too long for this regex (at most ${maxSubject}; simplify the regex)`,
    );
  }
  regex.lastIndex = 0;
  return regex.test(subject);
}

import { RuleError } from './errors';

/** Longest pattern and longest subject a rule may use; both bound the matching cost. */
export const MAX_PATTERN_LENGTH = 512;
export const MAX_SUBJECT_LENGTH = 16_384;

const cache = new Map<string, RegExp>();

/**
 * Compiles a rule's regex (Python syntax as in Ironic, with a leading `(?i)`/`(?s)`/`(?m)`
 * flag group) after refusing what can backtrack catastrophically in a backtracking engine:
 * backreferences, and a quantified group that itself contains a quantifier or an alternation
 * (`(a+)+`, `(a|a)*`). What is left matches in time polynomial (in practice linear or
 * quadratic) in the subject, whose length is capped as well.
 */
export function compileSafeRegex(pattern: string, anchored: boolean): RegExp {
  const key = `${anchored ? 'A' : 'S'}${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH) throw new RuleError(`regex longer than ${MAX_PATTERN_LENGTH} characters`);
  let body = pattern;
  let flags = '';
  const inline = /^\(\?([ims]+)\)/.exec(body);
  if (inline) {
    flags = [...new Set(inline[1])].join('');
    body = body.slice(inline[0].length);
  }
  checkBacktracking(body);
  let regex: RegExp;
  try {
    regex = new RegExp(anchored ? `^(?:${body})$` : body, flags);
  } catch {
    throw new RuleError(`invalid regex ${JSON.stringify(pattern)}`);
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(key, regex);
  return regex;
}

interface Group {
  quantifierInside: boolean;
  alternationInside: boolean;
}

function checkBacktracking(body: string): void {
  const stack: Group[] = [{ quantifierInside: false, alternationInside: false }];
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      const next = body[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') throw new RuleError('regex backreferences are not allowed');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '(') {
      stack.push({ quantifierInside: false, alternationInside: false });
      continue;
    }
    if (c === '|') {
      top.alternationInside = true;
      continue;
    }
    if (c === ')') {
      const group = stack.pop();
      if (!group || stack.length === 0) throw new RuleError('invalid regex: unbalanced parentheses');
      // `?` makes a group optional, not repeated: only `*`, `+` and `{n,m}` can backtrack.
      const quantified = isQuantifierAt(body, i + 1);
      const repeated = quantified && body[i + 1] !== '?';
      if (repeated && (group.quantifierInside || group.alternationInside)) {
        throw new RuleError('regex has a repeated group containing a repetition or alternation (catastrophic backtracking)');
      }
      const parent = stack[stack.length - 1];
      parent.quantifierInside ||= group.quantifierInside || quantified;
      continue;
    }
    if (isQuantifierAt(body, i) && !(c === '?' && body[i - 1] === '(')) top.quantifierInside = true;
  }
}

function isQuantifierAt(body: string, i: number): boolean {
  const c = body[i];
  if (c === '*' || c === '+') return true;
  if (c === '{') return /^\{\d+(,\d*)?\}/.test(body.slice(i));
  return c === '?' && body[i - 1] !== '(' && !/[*+?}]/.test(body[i - 1] ?? '');
}

export function regexTest(value: unknown, pattern: unknown, anchored: boolean): boolean {
  if (typeof pattern !== 'string') throw new RuleError('regex must be a string');
  if (value === null || value === undefined) return false;
  const subject = typeof value === 'string' ? value : String(value);
  if (subject.length > MAX_SUBJECT_LENGTH) throw new RuleError(`value longer than ${MAX_SUBJECT_LENGTH} characters for a regex`);
  return compileSafeRegex(pattern, anchored).test(subject);
}

import { RuleError } from '../errors';
import { isPlainObject, pythonStr, typeName } from '../values';
import { requireNode, setOperations } from './node-helpers';
import type { ActionContext, ActionPlugin } from './types';

function capabilities(context: ActionContext): string {
  const properties = requireNode(context).properties;
  const current = isPlainObject(properties) ? properties.capabilities : undefined;
  if (current === undefined || current === null) return '';
  if (typeof current !== 'string')
    throw new RuleError(`node /properties/capabilities is a ${typeName(current)}, not a string`);
  return current;
}

function text(value: unknown, what: string): string {
  if (Array.isArray(value) || isPlainObject(value) || value === null || value === undefined) {
    throw new RuleError(`a capability ${what} is text, got ${typeName(value)}`);
  }
  return pythonStr(value);
}

function write(context: ActionContext, value: string): void {
  for (const operation of setOperations(
    requireNode(context),
    '/properties/capabilities',
    value,
    'node',
  ))
    context.patchNode(operation);
}

/** A name already there is appended again, as Ironic does. */
export const setCapabilityAction: ActionPlugin = {
  name: 'set-capability',
  params: [{ name: 'name' }, { name: 'value' }],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    const capability = `${text(args.name, 'name')}:${text(args.value, 'value')}`;
    const current = capabilities(context);
    write(context, current ? `${current},${capability}` : capability);
  },
};

export const unsetCapabilityAction: ActionPlugin = {
  name: 'unset-capability',
  params: [{ name: 'name' }],
  formatted: [],
  supportsEarly: false,
  run: (context, args) => {
    const prefix = `${text(args.name, 'name')}:`;
    write(
      context,
      capabilities(context)
        .split(',')
        .filter((entry) => !entry.startsWith(prefix))
        .join(','),
    );
  },
};

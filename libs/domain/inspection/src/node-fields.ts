import { RuleError } from './errors';
import { isPlainObject, pythonStr } from './values';

/** Ironic's Node object (`ironic/objects/node.py`): each a nullable oslo.versionedobjects `StringField`. */
export const NODE_STRING_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'driver',
  'reservation',
  'conductor_group',
  'power_state',
  'target_power_state',
  'provision_state',
  'target_provision_state',
  'maintenance_reason',
  'fault',
  'last_error',
  'resource_class',
  'protected_reason',
  'bios_interface',
  'boot_interface',
  'console_interface',
  'deploy_interface',
  'firmware_interface',
  'inspect_interface',
  'management_interface',
  'network_interface',
  'power_interface',
  'raid_interface',
  'rescue_interface',
  'storage_interface',
  'vendor_interface',
  'owner',
  'lessee',
  'description',
  'retired_reason',
  'boot_mode',
  'shard',
  'parent_node',
  'instance_name',
  'health',
]);

/**
 * oslo.versionedobjects' `String.coerce`, as Ironic's `setattr(node, field, value)` applies it:
 * numbers and booleans as `str(value)` writes them (`false` → `"False"`), null kept, anything
 * else refused in its own words.
 */
export function coerceNodeField(field: string, value: unknown): unknown {
  if (!NODE_STRING_FIELDS.has(field) || value === null) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return pythonStr(value);
  const type = Array.isArray(value) ? 'list' : isPlainObject(value) ? 'dict' : typeof value;
  throw new RuleError(`A string is required in field ${field}, not a ${type}`);
}

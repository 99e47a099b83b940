import { RuleError } from './errors';
import { isPlainObject, pythonStr } from './values';

/**
 * The fields Ironic's Node object (`ironic/objects/node.py`) types as strings, each an
 * oslo.versionedobjects `StringField(nullable=True)`.
 */
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
 * What Ironic stores when a value is set on a top-level node field (`setattr(node, field,
 * value)`), for the string fields: oslo.versionedobjects' `String.coerce`, which takes
 * numbers, booleans (a Python `int`) and strings as `str(value)` writes them (`5` → `"5"`,
 * `1.5` → `"1.5"`, `false` → `"False"`), keeps null (the fields are nullable), and refuses
 * anything else with its own words ("A string is required in field name, not a dict").
 * Other fields keep the value as it is.
 */
export function coerceNodeField(field: string, value: unknown): unknown {
  if (!NODE_STRING_FIELDS.has(field) || value === null) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return pythonStr(value);
  const type = Array.isArray(value) ? 'list' : isPlainObject(value) ? 'dict' : typeof value;
  throw new RuleError(`A string is required in field ${field}, not a ${type}`);
}

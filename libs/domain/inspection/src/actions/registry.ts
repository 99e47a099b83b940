import { delAttributeAction } from './del-attribute';
import { delPortAttributeAction } from './del-port-attribute';
import { extendAttributeAction } from './extend-attribute';
import { extendPluginDataAction } from './extend-plugin-data';
import { extendPortAttributeAction } from './extend-port-attribute';
import { failAction } from './fail';
import { logAction } from './log';
import { setAttributeAction } from './set-attribute';
import { setPluginDataAction } from './set-plugin-data';
import { setPortAttributeAction } from './set-port-attribute';
import type { ActionPlugin } from './types';
import { unsetPluginDataAction } from './unset-plugin-data';
import { addTraitAction, removeTraitAction } from './traits';
import { setCapabilityAction, unsetCapabilityAction } from './capabilities';

export const ACTIONS: ReadonlyMap<string, ActionPlugin> = new Map(
  [
    failAction,
    setPluginDataAction,
    extendPluginDataAction,
    unsetPluginDataAction,
    logAction,
    setAttributeAction,
    extendAttributeAction,
    delAttributeAction,
    setPortAttributeAction,
    extendPortAttributeAction,
    delPortAttributeAction,
    setCapabilityAction,
    unsetCapabilityAction,
    addTraitAction,
    removeTraitAction,
  ].map((action) => [action.name, action]),
);

/** `api-call` would make the rules service call any URL a rule names, from inside the network. */
export const REFUSED_ACTIONS: ReadonlyMap<string, string> = new Map([
  [
    'api-call',
    'api-call is not supported: it would let a rule make the service call any URL (no allow-list of hosts exists here); call the hook from the consumer of inspection.v1.results instead',
  ],
]);

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

/** Every action a rule may use, by op name. */
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
  ].map((action) => [action.name, action]),
);

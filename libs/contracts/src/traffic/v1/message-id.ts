/**
 * The `Nats-Msg-Id` of a traffic message (either major): `<project>/<id>`, the event's or
 * batch's id in its project's own namespace. TRAFFIC drops an id it stored in the last two
 * minutes whatever the subject, so producers of every project share that window; namespaced, one
 * project's ids can never make another's event a duplicate. A project token has no `/` (producer
 * credentials are issued for no other), so the first `/` ends it.
 */
export const trafficMessageId = (project: string, id: string): string => `${project}/${id}`;

/**
 * Why a traffic message's `Nats-Msg-Id` is refused, or undefined when it is not: an id in
 * another project's namespace than its subject's (`foreign_message_id`). Such a message can only
 * have been published to pre-empt, or be mistaken for, another project's message; it is never
 * counted. A bare id (no `/`), as producers written before namespaces set, and a message without
 * one are accepted: their ids share one window with every other bare id.
 */
export function foreignTrafficMessageId(
  subjectProject: string,
  messageId: string | undefined,
): string | undefined {
  if (messageId === undefined) return undefined;
  const slash = messageId.indexOf('/');
  if (slash < 0) return undefined;
  const namespace = messageId.slice(0, slash);
  if (namespace === subjectProject) return undefined;
  return `Nats-Msg-Id "${messageId}" is in project "${namespace}"'s namespace, not "${subjectProject}"'s (the subject's): use "${trafficMessageId(subjectProject, '<id>')}"`;
}

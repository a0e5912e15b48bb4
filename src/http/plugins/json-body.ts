/**
 * JSON bodies as fastify parses them (prototype poisoning refused), refused as well when a
 * member name repeats within an object: 400 naming the member
 * (docs/behaviour.md#registration-validation).
 */
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../domain/errors.js';
import { firstDuplicateKey, type JsonPath } from '../../domain/json-duplicate-keys.js';

/** Member names the API uses are letters only; anything else may be a value typed as a name. */
const FIELD_NAME = /^[A-Za-z]{1,64}$/;

/**
 * The JSON Pointer (RFC 6901) of `path`, up to the first member name that is not a field
 * name of ours: a social security number typed where a name belongs is never echoed.
 */
function shownPointer(path: JsonPath): { pointer: string; whole: boolean } {
  let pointer = '';
  for (const segment of path) {
    if (typeof segment === 'string' && !FIELD_NAME.test(segment)) return { pointer: pointer || '/', whole: false };
    pointer += `/${segment}`;
  }
  return { pointer, whole: true };
}

export function refuseDuplicateJsonKeys(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    void parse(request, text, (error, parsed) => {
      if (error) return done(error);
      const duplicate = firstDuplicateKey(text);
      if (duplicate === undefined) return done(null, parsed);
      const { pointer, whole } = shownPointer(duplicate);
      done(
        invalidRequest('a member of the JSON body is given more than once', {
          problems: [
            { path: pointer, message: whole ? 'is given more than once' : 'has a member given more than once' },
          ],
        }),
      );
    });
  });
}

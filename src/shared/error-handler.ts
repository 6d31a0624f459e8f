// The one error handler and the answers it writes: every failing response has the Error body
// (openapi.ts's ErrorBody). Split from errors.ts, which keeps the codes, ApiError and the reading of
// AJV's failures, and which this file imports (not the other way round).
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AjvError, ApiError, validationError } from './errors.js';
import type { ErrorBody } from './openapi.js';

/** Maps Fastify's own errors (parser, body limit, media type) onto API errors. */
function fromFastify(err: FastifyError): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      // Most endpoints take JSON; the upload endpoints (files, order imports) take the file's own
      // type, and this error cannot tell which route refused, so it names both.
      return new ApiError(
        'unsupported_media_type',
        "Unsupported Content-Type: send application/json, or for an upload (files, order imports) the file's own type.",
      );
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ApiError('unsupported_media_type', 'The Content-Type header is invalid.');
    default:
      if (err.statusCode === 413) return new ApiError('request_too_large', 'The request body is too large.');
      if (err.statusCode === 415) return new ApiError('unsupported_media_type', 'Unsupported Content-Type.');
      if (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP')) {
        return new ApiError('invalid_json', 'The request body could not be parsed.');
      }
      return undefined;
  }
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  const body: ErrorBody = {
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      ...(err.param === undefined ? {} : { param: err.param }),
      request_id: String(reply.request.id),
    },
  };
  return reply.code(err.status).type('application/json; charset=utf-8').send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    if (error.validation)
      return sendError(reply, validationError(error.validation as AjvError[], error.validationContext ?? 'body'));
    const mapped = fromFastify(error);
    if (mapped) return sendError(reply, mapped);
    // The log keeps the details; the client only ever sees a generic message and the request id.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      new ApiError('internal_error', 'An internal error occurred. Quote the request id if you contact support.'),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new ApiError('route_not_found', `Unrecognized request URL (${request.method} ${request.url.split('?')[0]}).`),
    ),
  );
}

/**
 * The whole HTTP response for a request Node's parser refused before Fastify saw it (a control
 * character or an oversized header, a timeout): there is no request object, so the response is
 * written to the socket by hand, still with the Error body and a Request-Id. `null` for a reset
 * connection, which has no one to answer.
 */
export function clientErrorResponse(err: NodeJS.ErrnoException, requestId: string, version: string): string | null {
  if (err.code === 'ECONNRESET') return null;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('request_header_too_large', 'The request headers are too large (16 KiB at most in all).')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('request_timeout', 'The request was not received in time.')
        : new ApiError('malformed_request', 'The request is not valid HTTP (check the request line and headers).');
  const body = JSON.stringify({
    error: { type: error.type, code: error.code, message: error.message, request_id: requestId },
  } satisfies ErrorBody);
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Request-Id: ${requestId}`,
    `Service-Version: ${version}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

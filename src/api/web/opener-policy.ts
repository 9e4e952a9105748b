import type { FastifyReply, FastifyRequest } from 'fastify';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Browsers ignore `Cross-Origin-Opener-Policy` on origins that are not potentially trustworthy
 * (plain HTTP other than loopback — the usual way to reach the service on a home network) and say
 * so as a console error on every page. Pages we serve to browsers drop it there; everywhere else
 * it stays.
 */
export function dropOpenerPolicyOnPlainHttp(request: FastifyRequest, reply: FastifyReply): void {
  if (request.protocol === 'https' || LOOPBACK.has(request.hostname.toLowerCase()) || request.hostname.endsWith('.localhost')) return;
  reply.removeHeader('cross-origin-opener-policy');
}

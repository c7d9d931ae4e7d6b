/**
 * Every request body is buffered here, bounded, before the CSRF check (which reads form bodies) or
 * any route reads it; an oversized one is 413 (server/utils/request-body.ts bodyRefusal).
 */
import { defineEventHandler } from 'h3'
import { bodyRefusal } from '../utils/request-body'

export default defineEventHandler((event) => bodyRefusal(event))

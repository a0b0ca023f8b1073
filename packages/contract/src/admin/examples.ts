// Realistic values for the operator API's document; examples.test.ts checks each against its schema.

export const EXAMPLE_KEY = {
  id: 'key_7Hq2LmX9pR4sT1vW',
  prefix: 'as_live_3fK9',
  name: 'Acme production',
  customerId: 'cus_4Rk8Wq2Zx7Lm3Np9',
  plan: 'pro',
  limits: { perMinute: 300, perDay: 10000, perMonth: null },
  scopes: ['pets:read', 'pets:write'],
  createdAt: '2026-10-01T09:30:00.000Z',
  expiresAt: null,
  revokedAt: null,
  previousSecretExpiresAt: null,
  bannedUntil: null,
  usage: { minute: 12, day: 4821, month: 0 },
  lastUsedAt: '2026-11-27T10:14:00.000Z'
} as const

export const EXAMPLE_CUSTOMER = {
  id: 'cus_4Rk8Wq2Zx7Lm3Np9',
  name: 'Acme Corp',
  externalId: 'cus_NffrFeUfNV2Hib',
  plan: 'pro',
  limits: { perMinute: 300, perDay: 10000, perMonth: null },
  ownLimits: false,
  keys: 2,
  createdAt: '2026-10-01T09:29:00.000Z',
  bannedUntil: null,
  usage: { minute: 12, day: 4821, month: 0 }
} as const

export const EXAMPLE_PLAN = {
  id: 'startup',
  name: 'Startup',
  limits: { perMinute: 120, perDay: 5000, perMonth: null },
  customers: 14,
  createdAt: '2026-11-20T08:00:00.000Z'
} as const

export const EXAMPLE_SECRET = 'as_live_3fK9OtzW6OYSmXGEjk4Jz4dWA9mpMdEv9gtBbA3ybyh'

export const EXAMPLE_BANNED_KEY = {
  ...EXAMPLE_KEY,
  id: 'key_Zp4Yt8Rk2Wm6Qs1X',
  prefix: 'as_live_Vb7N',
  name: 'Scraper trial',
  customerId: 'cus_Hv3Tq9Lp2Xc6Rb8M',
  plan: 'free',
  limits: { perMinute: 60, perDay: 1000, perMonth: null },
  bannedUntil: '2026-11-27T10:29:00.000Z',
  usage: { minute: 60, day: 412, month: 0 }
} as const

export const EXAMPLE_BUCKETS = [
  { start: '2026-11-27T10:00:00.000Z', allowed: 58, rateLimited: 0, banned: 0, quotaExceeded: 0 },
  { start: '2026-11-27T10:01:00.000Z', allowed: 60, rateLimited: 14, banned: 0, quotaExceeded: 0 },
  { start: '2026-11-27T10:02:00.000Z', allowed: 60, rateLimited: 60, banned: 10, quotaExceeded: 0 }
] as const

export const EXAMPLE_AUDIT_EVENT = {
  id: '1042',
  at: '2026-11-27T09:58:12.345Z',
  actor: { type: 'operator', id: 'op_Kd8Fj2Lq9Wz3Xc5V', name: 'Dana (support)' },
  action: 'key.update',
  target: { type: 'key', id: EXAMPLE_KEY.id, name: EXAMPLE_KEY.name },
  changes: { plan: { from: 'free', to: 'pro' }, perMinute: { from: 100, to: null } },
  requestId: 'req-3f9c2b7a1d',
  remoteAddress: '10.0.4.17',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0'
} as const

export const EXAMPLE_OPERATOR = {
  id: 'op_Kd8Fj2Lq9Wz3Xc5V',
  name: 'Dana (support)',
  role: 'admin',
  createdAt: '2026-09-15T08:00:00.000Z',
  revokedAt: null
} as const

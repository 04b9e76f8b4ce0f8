// What a descriptor warns of about an entry, as data (src/resources/types.ts's descriptors give them).

/**
 * What a descriptor warns of about one entry, as data (a part of the plan's `Warning`; the English is
 * src/render/warnings.ts). `address` is the entry's.
 */
export type DescriptorWarning =
  /** A certificate that expires within the warning window (`days` left), or has (`days` absent). */
  | { code: 'ca_expiry'; address: string; common_name: string; not_after: string; days?: number }
  /** A fixed `valid_until` already within renew_before. */
  | { code: 'valid_until_within_renewal'; address: string; valid_until: string }
  /** `valid_for` differs from the lifetime `id` was issued for (`lifetime` seconds, until `valid_until`). */
  | {
      code: 'valid_for_kept';
      address: string;
      id: string;
      valid_for: number;
      lifetime: number;
      valid_until: string;
    };

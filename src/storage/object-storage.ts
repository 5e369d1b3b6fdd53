/**
 * S3-compatible object storage: put (buffer or stream), presigned GET (24 h), bucket creation.
 * The client uses path-style addressing and computes checksums only when required: with the
 * defaults, streamed uploads to S3-compatible servers are stored corrupted.
 */
import { CreateBucketCommand, GetObjectCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';

export const PRESIGN_SECONDS = 24 * 60 * 60;

export interface ObjectStorageOptions {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface ObjectStorage {
  readonly bucket: string;
  ensureBucket(): Promise<void>;
  put(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  /** A GET URL valid for `expiresInSeconds` (default 24 h). */
  presign(key: string, expiresInSeconds?: number): Promise<string>;
  destroy(): void;
}

export function createObjectStorage(options: ObjectStorageOptions): ObjectStorage {
  // The pinned SDK works on Node 20; its advisory about releases after January 2027 is noise in every log.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: true,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const bucket = options.bucket;
  return {
    bucket,
    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch {
        try {
          await client.send(new CreateBucketCommand({ Bucket: bucket }));
        } catch (error) {
          const name = (error as { name?: string }).name;
          if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
        }
      }
    },
    async put(key, body, contentType) {
      // lib-storage's Upload streams in parts without buffering the whole object.
      await new Upload({ client, params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType } }).done();
    },
    async presign(key, expiresInSeconds = PRESIGN_SECONDS) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
    },
    destroy() {
      client.destroy();
    },
  };
}

// Runs Confluent's JavaScript schema registry client
// (@confluentinc/schemaregistry, pinned in package-lock.json) against a
// registry (internal/testrig/srtest, started by the Go test that runs this script):
//
//   node check.mjs IN.json OUT.json
//
// IN.json (written by formats/avroconfluent's TestConfluentClientGolden):
//   url        the registry's base URL
//   read       {topic, records: [base64]}: avro-confluent records streamsql
//              wrote; each is decoded with Confluent's AvroDeserializer
//   write      {topic, schema, values: [...]}: the schema is registered
//              under <topic>-value with the client, then each value is
//              encoded with Confluent's AvroSerializer (useLatestVersion)
//   evolve     a schema not backward compatible with write.schema
// OUT.json:
//   decoded    what the deserializer returned for each read record
//   encoded    the serializer's bytes (base64) for each write value
//   calls      each client API call and its result or RestError
//              (status, errorCode), so it is visible that the client
//              understood the registry's answers and error bodies.
//
// Avro values cross JSON as avsc gives them: bytes as {"$bytes": hex},
// long as a number (all test values are small), null unions unwrapped.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  SchemaRegistryClient, AvroSerializer, AvroDeserializer, SerdeType,
} from '@confluentinc/schemaregistry';

const [inPath, outPath] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inPath, 'utf8'));

const toJSON = (v) => {
  if (Buffer.isBuffer(v)) return { $bytes: v.toString('hex') };
  if (Array.isArray(v)) return v.map(toJSON);
  if (v !== null && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = toJSON(x);
    return o;
  }
  return v;
};
const fromJSON = (v) => {
  if (Array.isArray(v)) return v.map(fromJSON);
  if (v !== null && typeof v === 'object') {
    if (typeof v.$bytes === 'string') return Buffer.from(v.$bytes, 'hex');
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = fromJSON(x);
    return o;
  }
  return v;
};

const client = SchemaRegistryClient.newClient({ baseURLs: [input.url], maxRetries: 0 });
const calls = [];
const call = async (name, f) => {
  try {
    const r = await f();
    calls.push({ call: name, result: r });
    return r;
  } catch (e) {
    if (e.status === undefined) throw e;
    calls.push({ call: name, error: { status: e.status, errorCode: e.errorCode } });
    return undefined;
  }
};

// Confluent's deserializer reads streamsql's records: GET /schemas/ids/{id}.
const des = new AvroDeserializer(client, SerdeType.VALUE, {});
const decoded = [];
for (const b64 of input.read.records) {
  decoded.push(toJSON(await des.deserialize(input.read.topic, Buffer.from(b64, 'base64'))));
}

// The client registers a schema, reads it back, and the serializer writes
// records with the subject's latest schema.
const subject = `${input.write.topic}-value`;
const info = { schemaType: 'AVRO', schema: input.write.schema };
const id = await call('register', () => client.register(subject, info));
await call('getLatestSchemaMetadata', () => client.getLatestSchemaMetadata(subject));
await call('getBySubjectAndId', () => client.getBySubjectAndId(subject, id));
const ser = new AvroSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true });
const encoded = [];
for (const v of input.write.values) {
  encoded.push((await ser.serialize(input.write.topic, fromJSON(v))).toString('base64'));
}

// Error answers the client must understand.
await call('register incompatible', () => client.register(subject, { schemaType: 'AVRO', schema: input.evolve }));
await call('getLatestSchemaMetadata unknown subject', () => client.getLatestSchemaMetadata('no-such-subject-value'));
await call('getBySubjectAndId unknown id', () => client.getBySubjectAndId(subject, 4242));

writeFileSync(outPath, JSON.stringify({ decoded, encoded, calls }, null, 2) + '\n');

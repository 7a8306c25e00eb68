package clientprops

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// Encrypted PKCS#8 private keys ("ENCRYPTED PRIVATE KEY" PEM blocks), as
// Kafka reads with ssl.key.password: PBES2 with PBKDF2 and AES-CBC (what
// `openssl pkcs8 -topk8` and Java write today). The legacy PBES1 schemes
// (DES, RC2) are refused.

var (
	oidPBES2         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2        = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACWithSHA1  = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACWithSHA22 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACWithSHA25 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACWithSHA38 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACWithSHA51 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

type encryptedPrivateKeyInfo struct {
	Algo pkix.AlgorithmIdentifier
	Data []byte
}

type pbes2Params struct {
	KDF    pkix.AlgorithmIdentifier
	Scheme pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// errKeyPassword is returned when the key does not decrypt, which is almost
// always a wrong ssl.key.password.
var errKeyPassword = errors.New("the key does not decrypt with ssl.key.password (wrong password?)")

// decryptPKCS8 returns the PKCS#8 DER of an encrypted private key.
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) != 0 {
		return nil, errors.New("malformed encrypted private key")
	}
	if !info.Algo.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("unsupported key encryption %v: only PBES2 (PBKDF2 with AES-CBC) is supported; re-encrypt with `openssl pkcs8 -topk8 -v2 aes-256-cbc`", info.Algo.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algo.Parameters.FullBytes, &params); err != nil {
		return nil, errors.New("malformed PBES2 parameters")
	}
	if !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("unsupported key derivation %v: only PBKDF2 is supported", params.KDF.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	var prf func() hash.Hash
	switch a := kdf.PRF.Algorithm; {
	case len(a) == 0, a.Equal(oidHMACWithSHA1):
		prf = sha1.New
	case a.Equal(oidHMACWithSHA22):
		prf = sha256.New224
	case a.Equal(oidHMACWithSHA25):
		prf = sha256.New
	case a.Equal(oidHMACWithSHA38):
		prf = sha512.New384
	case a.Equal(oidHMACWithSHA51):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("unsupported PBKDF2 pseudo-random function %v", a)
	}
	var keyLen int
	switch a := params.Scheme.Algorithm; {
	case a.Equal(oidAES128CBC):
		keyLen = 16
	case a.Equal(oidAES192CBC):
		keyLen = 24
	case a.Equal(oidAES256CBC):
		keyLen = 32
	default:
		return nil, fmt.Errorf("unsupported key cipher %v: only AES-CBC is supported", a)
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != keyLen {
		return nil, errors.New("PBKDF2 key length does not fit the cipher")
	}
	if kdf.Iterations <= 0 || kdf.Iterations > 10_000_000 {
		return nil, fmt.Errorf("unreasonable PBKDF2 iteration count %d", kdf.Iterations)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.Scheme.Parameters.FullBytes, &iv); err != nil || len(iv) != aes.BlockSize {
		return nil, errors.New("malformed AES-CBC parameters")
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if len(info.Data) == 0 || len(info.Data)%aes.BlockSize != 0 {
		return nil, errors.New("malformed encrypted key data")
	}
	out := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, info.Data)
	// PKCS#7 padding; a wrong password almost always breaks it.
	pad := int(out[len(out)-1])
	if pad == 0 || pad > aes.BlockSize || pad > len(out) {
		return nil, errKeyPassword
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, errKeyPassword
		}
	}
	return out[:len(out)-pad], nil
}

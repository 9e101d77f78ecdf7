#!/bin/sh
# tests/peers/make-cert.sh DIR - test TLS material for smtp-peer.py (openssl).
#
#   DIR/ca.pem        self-signed test CA ("robotmail test CA")
#   DIR/server.pem    server certificate, CN=localhost,
#                     subjectAltName DNS:localhost,IP:127.0.0.1, signed by ca.pem
#   DIR/server.key    its private key (unencrypted, mode 600)
#   DIR/wrong-ca.pem  an unrelated self-signed CA: a client verifying the
#                     server against it must refuse
# (also DIR/ca.key, DIR/wrong-ca.key).  Quiet on success; valid 30 days.
# Needs the Debian package openssl (3.x: uses -addext / -copy_extensions).
set -eu

[ $# -eq 1 ] || {
	echo "usage: $0 DIR" >&2
	exit 2
}
command -v openssl >/dev/null || {
	echo "make-cert.sh: openssl not found (apt-get install openssl)" >&2
	exit 1
}
mkdir -p "$1"
d=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/openssl.log
umask 077

run() {
	"$@" >>"$log" 2>&1 || {
		echo "make-cert.sh: failed: $*" >&2
		cat "$log" >&2
		exit 1
	}
}

ca() { # NAME CN
	run openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 30 \
		-keyout "$d/$1.key" -out "$d/$1.pem" -subj "/O=robotmail tests/CN=$2" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" \
		-addext "subjectKeyIdentifier=hash"
}

ca ca "robotmail test CA"
ca wrong-ca "robotmail WRONG test CA"

run openssl req -new -newkey rsa:2048 -nodes -sha256 \
	-keyout "$d/server.key" -out "$tmp/server.csr" -subj "/O=robotmail tests/CN=localhost"
cat >"$tmp/ext.cnf" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid,issuer
EOF
run openssl x509 -req -in "$tmp/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
	-CAcreateserial -CAserial "$tmp/ca.srl" -days 30 -sha256 \
	-extfile "$tmp/ext.cnf" -out "$d/server.pem"
run openssl verify -CAfile "$d/ca.pem" "$d/server.pem"
chmod 644 "$d/ca.pem" "$d/wrong-ca.pem" "$d/server.pem"

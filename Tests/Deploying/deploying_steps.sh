#!/bin/sh
# docs/DEPLOYING.md's commands, in order, run by run_deploying_walkthrough.sh inside a fresh Debian 12 (debootstrap
# minbase) as root. The machine's own setup (what a real machine has and this chroot lacks) is marked MACHINE; what
# systemd would do (a chroot has none) is marked NO SYSTEMD. Keep it in step with the page.
set -eux
cd /root
printf '127.0.0.1 localhost\n' > /etc/hosts                             # MACHINE
apt-get update -q && apt-get install -y -q sudo openssl ca-certificates  # MACHINE (minbase has neither sudo nor openssl)
echo "127.0.0.1 db.example mtproto.example" >> /etc/hosts               # the doc: db.example must resolve (DNS or /etc/hosts)

# 1. Build and install (built outside with --static-swift-stdlib, copied to /root/synccore)
sudo apt-get install -y libssl3 libsqlite3-0 zlib1g
sudo install -m 0755 synccore /usr/local/bin/synccore
sudo useradd --system --home /var/lib/synccore --create-home synccore

# 2. PostgreSQL
sudo apt-get install -y postgresql
pg_ctlcluster 15 main start                                              # NO SYSTEMD
sudo -u postgres createuser synccore
sudo -u postgres psql -c "ALTER ROLE synccore PASSWORD 'choose-one'"
sudo -u postgres createdb -O synccore synccore_dc2
sudo -u synccore sh -c 'umask 077; echo "db.example:5432:synccore_dc2:synccore:choose-one" > ~/.pgpass'
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=synccore database CA" -keyout db-root.key -out db-root.pem
openssl req -newkey rsa:2048 -nodes -subj "/CN=db.example" -addext "subjectAltName=DNS:db.example" -keyout db.key -out db.csr
openssl x509 -req -in db.csr -CA db-root.pem -CAkey db-root.key -CAcreateserial -days 825 -copy_extensions copy -out db.crt
sudo install -o postgres -m 0600 db.key db.crt /etc/postgresql/15/main/
sudo install -m 0644 db-root.pem /etc/ssl/db-root.pem
sed -i "s|^ssl_cert_file.*|ssl_cert_file = '/etc/postgresql/15/main/db.crt'|; s|^ssl_key_file.*|ssl_key_file = '/etc/postgresql/15/main/db.key'|" /etc/postgresql/15/main/postgresql.conf
pg_ctlcluster 15 main restart                                            # NO SYSTEMD: systemctl restart postgresql

# 3. The processes: the unit's ExecStart for synccore@4431 and synccore@4432, User=synccore   (NO SYSTEMD)
for i in 4431 4432; do
    su -s /bin/sh synccore -c "/usr/local/bin/synccore server --host 127.0.0.1 --port $i --dc 2 --data /var/lib/synccore/dc2-$i \
        --postgres 'postgres://synccore@db.example:5432/synccore_dc2?sslmode=verify-full&sslrootcert=/etc/ssl/db-root.pem' \
        --advertise mtproto.example:443 --proxy-protocol --metrics-port 1$i --event-loops 2 \
        --export-public-key /var/lib/synccore/public-key.pem" > /root/synccore-$i.log 2>&1 &
done

# 4. The load balancer
sudo apt-get install -y haproxy
cat >> /etc/haproxy/haproxy.cfg <<'CFG'
frontend mtproto
    mode tcp
    bind :443
    option tcplog
    timeout client 10m
    default_backend synccore
backend synccore
    mode tcp
    balance leastconn
    timeout connect 5s
    timeout server 10m
    server a 127.0.0.1:4431 send-proxy-v2 check check-send-proxy
    server b 127.0.0.1:4432 send-proxy-v2 check check-send-proxy
CFG
mkdir -p /run/haproxy                                                    # NO SYSTEMD: the unit's RuntimeDirectory
haproxy -D -f /etc/haproxy/haproxy.cfg -p /run/haproxy.pid               # NO SYSTEMD: systemctl reload haproxy
sleep 3
cat /root/synccore-4431.log /root/synccore-4432.log
ls -la /var/lib/synccore /var/lib/synccore/dc2-4431 /var/lib/synccore/dc2-4432

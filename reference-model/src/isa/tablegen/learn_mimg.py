from probe import probe
from learn import split_ops
import json, re
SAMP={}
def base(op, dmask=0xf, dim=1, a16=0, d16=0, tfe=0):
    w0=0xF0000000|(op&0x7f)<<18|(op>>7)|dmask<<8|dim<<3|tfe<<16
    w1=20|10<<8|1<<16|SAMP.get(op,2)<<21|a16<<30|d16<<31
    return [w0,w1]
def width(tok):
    m=re.match(r'^v\[(\d+):(\d+)\]$',tok)
    if m: return int(m.group(2))-int(m.group(1))+1
    return 1 if re.match(r'^v\d+$',tok) else 0
res={}
for cpu in ('gfx1013','gfx1030'):
    SAMP.clear()
    ops=list(range(256))
    out=probe([base(op) for op in ops],cpu)
    r={}
    for op,o in zip(ops,out):
        if not o or o in('?','CRASH'):
            SAMP[op]=0
            o2=probe([base(op)],cpu)[0]
            if not o2 or o2 in ('?','CRASH'):
                o2=probe([base(op,dmask=1)],cpu)[0]
            if not o2 or o2 in ('?','CRASH'):
                SAMP.pop(op); continue
            o=o2
        mn,toks,mods=split_ops(o)
        r[op]={'text':o,'mn':mn,'toks':toks,'mods':mods}
    # address widths per dim, a16
    keys=[];c=[]
    for op in r:
        for a16 in (0,1):
            for dim in range(8):
                keys.append((op,'addr',a16*8+dim)); c.append(base(op,dim=dim,a16=a16))
        for d16 in (0,1):
            for k,dm in enumerate((1,3,7,15)):
                keys.append((op,'data',d16*4+k)); c.append(base(op,dmask=dm,d16=d16))
        keys.append((op,'tfe',0)); c.append(base(op,tfe=1))
        for wi in (0,1):
            for b in range(32):
                if wi==0 and (b>=18 and b<=24 or b>=26 or b==0 or b in (8,9,10,11,3,4,5)): continue
                w=base(op); w[wi]^=1<<b
                keys.append((op,'flip','%d.%d'%(wi,b))); c.append(w)
    out=probe(c,cpu)
    for (op,kind,k),o in zip(keys,out):
        d=r[op]
        if kind=='addr':
            d.setdefault('addr',[0]*16)
            if o and o not in ('?','CRASH'):
                mn,toks,mods=split_ops(o); d['addr'][k]=width(toks[1]) if len(toks)>1 else 0
            else: d['addr'][k]=-1
        elif kind=='data':
            d.setdefault('data',[0]*8)
            if o and o not in ('?','CRASH'):
                mn,toks,mods=split_ops(o); d['data'][k]=width(toks[0])
            else: d['data'][k]=-1
        elif kind=='tfe':
            d['tfe']=o
        else:
            d.setdefault('rej',[0,0]); d.setdefault('flip',{})
            wi,b=map(int,k.split('.'))
            if not o or o in ('?','CRASH'): d['rej'][wi]|=1<<b
            else: d['flip'][k]=o
    res[cpu]=r
    print(cpu,len(r))
json.dump(res,open('mimg_learn.json','w'),indent=0)
